"""Prints a module whose deepest nesting is exactly N brackets: a function
attribute holding N - 1 nested arrays inside its attribute dictionary."""
import sys

n = int(sys.argv[1])
k = n - 1
print("func.func @f() attributes {x = " + "[" * k + "]" * k + "} {")
print("  return")
print("}")
