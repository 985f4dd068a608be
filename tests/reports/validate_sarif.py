#!/usr/bin/env python3
"""Validates SARIF files against a JSON schema (the OASIS SARIF 2.1.0 schema in data/).

usage: validate_sarif.py SCHEMA FILE...
Prints every violation as FILE: PATH: MESSAGE; exit status 0 when all files are valid, 1 when
one is not, 2 when the validator cannot run (no python3-jsonschema, unreadable input)."""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("validate_sarif.py: python3-jsonschema is missing (scripts/setup.sh installs it)",
          file=sys.stderr)
    sys.exit(2)


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            schema = json.load(f)
        validator_class = jsonschema.validators.validator_for(schema)
        validator_class.check_schema(schema)
        validator = validator_class(schema, format_checker=validator_class.FORMAT_CHECKER
                                    if hasattr(validator_class, "FORMAT_CHECKER")
                                    else jsonschema.FormatChecker())
    except (OSError, ValueError, jsonschema.exceptions.SchemaError) as e:
        print(f"validate_sarif.py: {argv[1]}: {e}", file=sys.stderr)
        return 2
    invalid = False
    for path in argv[2:]:
        try:
            with open(path, encoding="utf-8") as f:
                document = json.load(f)
        except (OSError, ValueError) as e:
            print(f"validate_sarif.py: {path}: {e}", file=sys.stderr)
            return 2
        for error in sorted(validator.iter_errors(document), key=lambda e: list(e.path)):
            where = "/".join(str(p) for p in error.path) or "(root)"
            print(f"{path}: {where}: {error.message}")
            invalid = True
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
