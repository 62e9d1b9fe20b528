"""Storage: one function per query, each taking a ``sqlite_utils.Database``; nothing here knows Flask.

How the data is kept: ``connection``, ``migrations``, ``transactions``, ``request_ids``, ``access`` (the
gate), ``errors``; what is stored: ``groups``, ``plays``, ``custom_games``, ``sharing``, ``history``,
``ratings``, ``archive`` (a whole group) and ``imports``. Their names are re-exported here, so callers
write ``store.get_play(db, play_id)``.
"""
# ruff: noqa: F401  (this module re-exports)

from companion.store.archive import (
    ArchivedEvent,
    ArchivedGame,
    ArchivedPlay,
    ArchivedPlayer,
    ArchivedResult,
    ArchivedSeat,
    GroupArchive,
    dump_group,
    restore_group,
)
from companion.store.connection import (
    BUSY_TIMEOUT_SECONDS,
    LOG_SIZE_LIMIT,
    ThreadConnections,
    connect,
    snapshot,
)
from companion.store.custom_games import (
    DuplicateGame,
    GroupGame,
    add_group_game,
    check_sheet_version,
    check_shown_name,
    delete_group_game,
    get_group_game,
    group_game_by_id,
    group_game_version,
    list_group_games,
    sheet_unchanged,
    update_group_game,
)
from companion.store.errors import NotFound, StaleVersion, StoreError
from companion.store.groups import (
    JOIN_CODE_ALPHABET,
    JOIN_CODE_LENGTH,
    TRASH_DAYS,
    DuplicateName,
    Group,
    JoinCodeLimits,
    Membership,
    Player,
    TooManyImports,
    TooManyWrongCodes,
    add_player,
    check_distinct_names,
    count_join_failures,
    create_group,
    create_membership,
    delete_group,
    delete_membership,
    delete_player,
    existing_tokens,
    get_group,
    get_membership,
    get_player,
    group_by_token,
    group_for_join_code,
    list_memberships,
    list_players,
    member_groups,
    new_invite,
    note_import,
    player_play_count,
    purge_trash,
    rename_group,
    rename_membership,
    restore_trashed_group,
    set_phone_player,
    set_player_retired,
    touch_membership,
    trash_group,
    trashed_groups,
    trashed_memberships,
    update_player,
)
from companion.store.history import (
    HISTORY_PAGE_SIZE,
    PlayerStatistics,
    Rivalry,
    Statistics,
    history,
    played_games,
    statistics,
    winners_row_points,
)
from companion.store.imports import ImportedPlay, finished_play_players, import_plays, imported_play_keys
from companion.store.migrations import MIGRATIONS, migrate, schema_version
from companion.store.plays import (
    CORRECTION_EVENT,
    FINAL_EVENT,
    Event,
    EventLog,
    Play,
    ReopenedTally,
    ResultInput,
    ResultRow,
    TrashedPlay,
    append_event,
    append_to_active_play,
    change_play_options,
    check_play_version,
    correct_results,
    delete_play,
    final_payload,
    finish_play,
    get_play,
    group_plays,
    list_events,
    list_plays,
    log_past_play,
    newest_events,
    note_revision,
    play_counted,
    play_results,
    play_version,
    recent_finished,
    reopened_tally,
    restore_trashed_play,
    save_play_note,
    set_play_counted,
    start_play,
    trash_play,
    undo_last_event,
)
from companion.store.ratings import player_ratings, rating_history, refresh_ratings
from companion.store.request_ids import (
    REQUEST_IDS_KEPT_DAYS,
    RepeatedRequest,
    RequestId,
    expect_request,
    seen_request,
)
from companion.store.sharing import GroupSettings, StableIds, group_settings, save_group_settings, stable_ids
from companion.store.transactions import LOG_RESTART_PAGES, now, read_transaction, write_transaction
