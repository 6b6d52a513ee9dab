"""The command line: `gravebox` and its commands (`main`), the self-test, enrolment and print.

The top layer: it may import every folder below it, and nothing imports it but `box.__main__`.
"""
