import sys

from sglang_lint.frontends.front import main

sys.exit(main())
