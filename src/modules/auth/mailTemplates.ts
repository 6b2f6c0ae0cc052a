// The texts of the account emails. Plain text with the link on its own line (mail clients make it
// clickable; tests and people can copy it).
import type { MailMessage } from '../../../infra/mail/mailer.ts';

export function verificationMail(to: string, siteId: string, link: string): MailMessage {
  return {
    to,
    subject: `Confirm your email address for ${siteId}`,
    text: `Welcome!\n\nConfirm your email address to activate your account:\n\n${link}\n\nIf you did not sign up, ignore this message.\n`,
  };
}

export function alreadyRegisteredMail(to: string, siteId: string): MailMessage {
  return {
    to,
    subject: `You already have an account on ${siteId}`,
    text:
      `Someone tried to sign up with this email address, which already has an account.\n\n` +
      `If you forgot your password, use "Forgot password" on the sign-in page. If it was not you, ignore this message.\n`,
  };
}

export function passwordResetMail(to: string, siteId: string, link: string): MailMessage {
  return {
    to,
    subject: `Reset your password for ${siteId}`,
    text: `Choose a new password with this link:\n\n${link}\n\nEvery other session of the account is signed out. If you did not ask for this, ignore this message.\n`,
  };
}

export function invitationMail(to: string, siteId: string, link: string): MailMessage {
  return {
    to,
    subject: `You are invited to ${siteId}`,
    text: `You have been invited to ${siteId}. Choose your password to accept:\n\n${link}\n`,
  };
}
