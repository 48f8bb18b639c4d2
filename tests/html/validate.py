#!/usr/bin/env python3
"""Validates HTML pages with html5lib, the WHATWG parsing algorithm in Python, in strict mode: any
parse error (an unclosed or misnested element, a stray end tag, a bad attribute, a missing doctype)
fails. Usage: validate.py PAGE.html... Exit 0 when every page parses without an error."""
import sys

import html5lib


def main(paths):
    failed = False
    for path in paths:
        with open(path, "rb") as page:
            parser = html5lib.HTMLParser(strict=True)
            try:
                parser.parse(page)
            except html5lib.html5parser.ParseError as err:
                print(f"{path}: {err}")
                failed = True
                continue
        print(f"{path}: valid")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
