"""Attacks on swacheck from the files of an untrusted pull request (issue 15), one test per attack."""
