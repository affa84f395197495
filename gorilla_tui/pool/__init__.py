"""The API pool: ApiDoc, its formats and loaders, source manifests, doc expansion, accuracy metadata."""
