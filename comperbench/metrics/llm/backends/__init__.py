"""What answers an LLM judge: chat requests, the request budget, the HTTP and local-model backends and the raw-output store."""
