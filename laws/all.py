"""Every law of SPEC 8, imported in the order of its tables."""

from laws.bits import bits_agree  # noqa: F401
from laws.constants import constants_allowed  # noqa: F401
from laws.cview import (  # noqa: F401
    context_ends_at_node,
    context_is_prefix,
    cview_covers,
    cview_follows_chat,
    cview_sawtooth,
    cview_summarized,
)
from laws.line import (  # noqa: F401
    line_calls_at_most_tries,
    line_empty_is_a_try,
    line_fits,
    line_stops_when_not_shorter,
    line_takes_first_fit,
    replies_choose_line,
)
from laws.profile import (  # noqa: F401
    bare_zoom_drops_tags,
    builds_run_batches,
    ellipsis_marks_cut,
    empty_chat_shows_blank_line,
    empty_reply_fails_call,
    flat_lines_spaced,
    flat_sizes_counted,
    given_line_rechosen,
    goes_on_past_not_shorter,
    held_takes_a_job,
    kept_best_stays_whole,
    kind_words_lead,
    kinds_refuse_others,
    no_ahead_holds_no_leaf,
    no_cap_keeps_trying,
    no_need_first_stops_nothing,
    profile_read_back,
    queued_free_leaf_waits,
    ready_merges_keep_arrival,
    retried_start_first,
    row_sizes_count_heads,
    run_out_asks_again,
    self_resume_ends_settled_wait,
    self_starts_every_candidate,
    tick_retry_keeps_held,
    tolerance_widens_fit,
    trim_lines_trims,
    trim_set_names_whitespace,
    unbuilt_zoom_refused,
    wait_ignores_ahead,
    word_cut_drops_last_word,
    zoom_one_shows_head,
)
from laws.push import (  # noqa: F401
    first_is_not_last,
    first_leaves_push,
    first_merges_0_7,
    last_merges_8_9,
    push_agrees,
    push_agrees_always,
)
from laws.queue import (  # noqa: F401
    ahead_bound,
    fail_cap_builds,
    jobs_bound,
    merge_needs_halves,
    need_first,
    need_first_running,
    queue_order,
    refusal_names_first_rule,
    refused_changes_nothing,
    settle_ends_wait,
    settle_reached,
)
from laws.registry import LAWS, Law
from laws.render import (  # noqa: F401
    context_render_bytes,
    render_bytes,
    timed_out_render_bytes,
    zoom_opens_node,
)
from laws.view import (  # noqa: F401
    fit_merges_built,
    fit_merges_most_due,
    fit_reaches_budget,
    merge_covers,
    merge_is_one_pair,
    message_appends,
    message_merges_nothing,
    view_covers,
    view_summarized,
)

ORDER = """
view_covers cview_covers message_appends message_merges_nothing merge_is_one_pair
merge_covers push_agrees push_agrees_always fit_reaches_budget fit_merges_built
fit_merges_most_due view_summarized cview_summarized cview_follows_chat cview_sawtooth
last_merges_8_9 first_merges_0_7 first_is_not_last first_leaves_push context_ends_at_node
context_is_prefix
render_bytes context_render_bytes timed_out_render_bytes zoom_opens_node
jobs_bound ahead_bound merge_needs_halves queue_order need_first need_first_running
fail_cap_builds settle_reached settle_ends_wait refused_changes_nothing refusal_names_first_rule
line_calls_at_most_tries line_fits
line_takes_first_fit line_stops_when_not_shorter line_empty_is_a_try replies_choose_line
bits_agree constants_allowed
kind_words_lead trim_lines_trims no_need_first_stops_nothing no_cap_keeps_trying
self_starts_every_candidate wait_ignores_ahead empty_chat_shows_blank_line
kinds_refuse_others tick_retry_keeps_held held_takes_a_job
ready_merges_keep_arrival self_resume_ends_settled_wait
empty_reply_fails_call goes_on_past_not_shorter retried_start_first
zoom_one_shows_head bare_zoom_drops_tags unbuilt_zoom_refused
tolerance_widens_fit word_cut_drops_last_word ellipsis_marks_cut kept_best_stays_whole
run_out_asks_again given_line_rechosen trim_set_names_whitespace
queued_free_leaf_waits flat_lines_spaced no_ahead_holds_no_leaf flat_sizes_counted
builds_run_batches row_sizes_count_heads
profile_read_back
""".split()
"""The laws of SPEC 8, in the order of its tables."""


def all_laws() -> list[Law]:
    """Every registered law, in SPEC 8's order; refuses a missing or extra law."""
    by_name = {law.name: law for law in LAWS}
    missing = [name for name in ORDER if name not in by_name]
    extra = [name for name in by_name if name not in ORDER]
    if missing or extra:
        raise SystemExit(f"laws: missing {missing}, not in SPEC 8 {extra}")
    return [by_name[name] for name in ORDER]
