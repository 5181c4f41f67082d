// The Vault module: see README.md.
