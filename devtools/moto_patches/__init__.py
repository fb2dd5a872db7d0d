"""Patches of moto's internals that the embedded runtime's emulator installs (see README.md here)."""
