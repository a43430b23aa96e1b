/** The error a call throws (synchronously or by rejecting); fails the test when it does not throw. */
export async function caught(action: () => unknown): Promise<unknown> {
  try {
    await action();
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to throw");
}
