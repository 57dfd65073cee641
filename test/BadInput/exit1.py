#!/usr/bin/env python3
"""Runs a command and succeeds only if it exits with code 1 exactly (not 0,
not a crash, not an assertion's 134): the bad-input contract. The command's
stdout and stderr pass through, so FileCheck can read the diagnostic."""
import subprocess, sys

rc = subprocess.call(sys.argv[1:])
if rc != 1:
    sys.stderr.write(f"exit1.py: expected exit code 1, got {rc}\n")
    sys.exit(2)
