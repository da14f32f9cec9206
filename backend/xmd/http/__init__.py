"""The REST API: FastAPI app factory, authentication, role policy and error mapping."""
