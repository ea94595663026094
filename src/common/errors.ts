// A mistake the user can fix: the CLI prints its message as one line, without a stack.
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
