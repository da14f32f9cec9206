# One image for the API and the workers (docker-compose.yml picks the command).
#   docker compose build            # CUDA-enabled torch from PyPI (the worker uses the GPU when present)
#   docker compose build --build-arg TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu   # CPU-only, smaller

# --- the web UI, built into static files the API serves
FROM node:20-slim AS ui
WORKDIR /ui
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci
COPY frontend/ ./
RUN npm run build

# --- the Python service
FROM python:3.11-slim
ARG TORCH_INDEX_URL=""
ENV PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    TOKENIZERS_PARALLELISM=false \
    XMD_DATA_DIR=/data \
    XMD_FRONTEND_DIST=/app/frontend/dist
WORKDIR /app
COPY pyproject.toml README.md alembic.ini ./
COPY backend/ backend/
COPY workers/ workers/
COPY migrations/ migrations/
RUN if [ -n "$TORCH_INDEX_URL" ]; then pip install --extra-index-url "$TORCH_INDEX_URL" -e . ; else pip install -e . ; fi
COPY --from=ui /ui/dist /app/frontend/dist
RUN useradd --create-home --uid 1000 xmd && mkdir -p /data && chown xmd /data
USER xmd
VOLUME ["/data"]
EXPOSE 8000
# The API by default; the worker service overrides the command.
CMD ["sh", "-c", "xmd db upgrade && exec uvicorn --factory xmd.app:create_app --host 0.0.0.0 --port 8000"]
