"""What guards the app's routes: sign-in, upload bounds and shares, the answers to bad API values, and the lifetime of downloads."""
