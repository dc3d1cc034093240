"""``python -m corescheduler`` runs the command line."""

from corescheduler.cli import main

if __name__ == "__main__":
    main()
