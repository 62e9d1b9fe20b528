"""HTTP plumbing: the access gate's hook, sessions, security headers, languages, compression, caches."""
