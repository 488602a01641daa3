import sys

from sglang_lint.cli import main

sys.exit(main())
