/** The error a call fails with; the test fails if the call succeeds. */
export async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the call to fail, and it succeeded");
}
