from reservation_lab.cli import main

raise SystemExit(main())
