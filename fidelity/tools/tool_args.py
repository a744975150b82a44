"""What the fidelity tools that take flags share (as tool-kit.mjs does for the JavaScript ones):
the project's bad-input rule — one line naming the problem, prefixed with the tool's name, exit 2
— for argparse's errors, for bounded numbers and for the JSON files they read."""
import argparse
import json
import sys


def failer(prog):
    """fail(message) for the tool `prog`: one line on stderr, exit 2."""

    def fail(message):
        print(f"{prog}: {message}", file=sys.stderr)
        sys.exit(2)

    return fail


class Parser(argparse.ArgumentParser):
    """argparse with the bad-input rule (its errors go through failer(prog))."""

    def error(self, message):
        failer(self.prog)(message)


def checked(convert, what, ok, bound):
    """An argparse type: the text converted, and within its bound (NaN is not)."""

    def parse(text):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        if not ok(value):
            raise argparse.ArgumentTypeError(f"expected {bound}, got {text!r}")
        return value

    return parse


def read_json(path, fail, what=None):
    """The JSON of `path`; a file that cannot be read or is not JSON is fail()'s one line (named by `what`, e.g. the flag, when given)."""
    label = path if what is None else f"{what} {path}"
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        fail(f"cannot read {label}: {e.strerror}")
    except ValueError as e:
        fail(f"{label} is not JSON: {e}")
