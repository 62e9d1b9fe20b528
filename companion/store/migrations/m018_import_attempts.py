"""Migration 18: the backups each address imported lately, so that no one address floods the site."""

from sqlite_utils import Database


def m018_import_attempts(db: Database) -> None:
    db["import_attempts"].create({"client": str, "at": float}, not_null={"client", "at"})
    db["import_attempts"].create_index(["client", "at"])
