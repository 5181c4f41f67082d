// KeyringTestSupport: owned by the SecItem helper.
