# Sightline rules service: slim Python image, non-root user, gunicorn.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    SIGHTLINE_BIND=0.0.0.0:8000

WORKDIR /app
COPY pyproject.toml README.md gunicorn.conf.py ./
COPY service ./service
COPY adapters ./adapters
COPY schemas ./schemas
RUN pip install . && useradd --create-home --uid 10001 sightline

USER sightline
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/healthz').status == 200 else 1)"
CMD ["gunicorn", "-c", "gunicorn.conf.py", "service.app:create_app()"]
