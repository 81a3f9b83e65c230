# spiceboard in a container: build the release binary, then run it on a slim Debian.
# docker-compose.yml pairs it with PostgreSQL (DATABASE_URL), so no embedded cluster is needed.
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p spiceboard

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --home /app spiceboard
COPY --from=build /src/target/release/spiceboard /usr/local/bin/spiceboard
USER spiceboard
WORKDIR /app
ENV APP_APPLICATION__HOST=0.0.0.0 APP_APPLICATION__PORT=8000
EXPOSE 8000
ENTRYPOINT ["spiceboard"]
CMD ["serve"]
