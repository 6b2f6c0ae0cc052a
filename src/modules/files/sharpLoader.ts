// sharp, imported when the first image is uploaded or transformed, not at startup: its native library
// (libvips) holds megabytes of memory that an instance which never handles an image would keep for nothing.
import type sharp from 'sharp';

/** sharp's entry point: `sharp(input, options)` opens an image. */
export type SharpOpen = typeof sharp;

/** The module loader keeps it once imported: later calls answer at once. */
export async function loadSharp(): Promise<SharpOpen> {
  return (await import('sharp')).default;
}
