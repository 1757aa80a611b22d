# Sightline rules service: slim Python image, non-root user, gunicorn.
# Checked by hadolint in `make lint`; built by tests/e2e/test_docker.py where Docker or
# Podman runs.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    SIGHTLINE_BIND=0.0.0.0:8000

WORKDIR /app
COPY pyproject.toml README.md gunicorn.conf.py ./
COPY service ./service
COPY adapters ./adapters
COPY schemas ./schemas
RUN pip install . && useradd --create-home --uid 10001 sightline

# numeric: Kubernetes' runAsNonRoot can check it without the image's /etc/passwd
USER 10001:10001
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status != 200)"]
CMD ["gunicorn", "-c", "gunicorn.conf.py", "service.app:create_app()"]
