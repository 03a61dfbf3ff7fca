# The API image for production (docker-compose.yml): Neo4j and Qdrant run as their own services.

# The explorer and GraphiQL pages, bundled from the locked npm packages (served at /explore).
FROM node:20-slim AS web
WORKDIR /web
COPY web/package.json web/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY web/build.mjs ./
COPY web/src ./src
RUN npm run build

FROM python:3.11-slim AS base

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1

WORKDIR /app
RUN useradd --create-home --uid 10001 brain

# The lock pins torch's CPU build (torch==2.13.0+cpu), served by PyTorch's CPU index.
COPY requirements.lock pyproject.toml README.md ./
RUN pip install --extra-index-url https://download.pytorch.org/whl/cpu -r requirements.lock

COPY core ./core
COPY graph ./graph
COPY vectors ./vectors
COPY retrieval ./retrieval
COPY resolution ./resolution
COPY ingest ./ingest
COPY api ./api
COPY cli ./cli
COPY ai_brain ./ai_brain
COPY bench ./bench
COPY cypher ./cypher
COPY --from=web /web/dist ./web/dist
RUN pip install --no-deps -e . && mkdir -p /data && chown brain /data

USER brain
ENV BRAIN_DATA_DIR=/data BRAIN_HOST=0.0.0.0 BRAIN_PORT=8000
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=5 \
    CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/healthz').status == 200 else 1)"
CMD ["brain", "serve"]
