"""Built-in plugins, one module each, written against the same public API third parties use."""
