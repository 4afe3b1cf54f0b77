"""Plumbing every folder may import: errors, optional extras, the registry pattern, progress, write-once output files and text helpers."""
