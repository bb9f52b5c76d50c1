"""What runs are configured with: the settings and their precedence, the stored credentials,
the provider the settings name, and the models the configured services offer."""
