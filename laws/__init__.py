"""The laws of SPEC 8, one function per law, grouped by area.

`python -m laws` (or `make laws`) checks them all and prints one table.
"""
