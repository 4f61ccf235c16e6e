python -m reservation_lab cleanup --workdir "$PWD"
