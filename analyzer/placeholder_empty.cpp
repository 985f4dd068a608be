// Keeps the library non-empty until the analyzer lands; delete when a real source exists.
