"""`python -m attention_helpers.site`: build the static site."""

import sys

from . import main

sys.exit(main())
