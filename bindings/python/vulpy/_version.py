"""The package version (pyproject.toml has the same); a module of its own so
that the compile cache (_compiler) can key on it without importing the
package top."""
__version__ = "0.1.0"
