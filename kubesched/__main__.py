"""``python -m kubesched``."""

from kubesched.cli.main import main

main()
