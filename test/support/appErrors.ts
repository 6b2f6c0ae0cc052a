// What a piece of code refused with: the tests of rules and parsers assert on the error's code and path.
import { AppError } from '../../domain/shared/appError.ts';

/** The AppError that `run` throws; any other error is rethrown, and no error at all fails the test. */
export function appErrorThrownBy(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}
