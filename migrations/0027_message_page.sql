-- A page of a thread's messages in one statement (issue 3's history page; docs/decisions/0016): the access-token
-- middleware of `GET /v1/threads/{id}/messages` verifies the token alone, as a send's does (decision 0015), and
-- this function checks the session and counts the request (hearth_session_admit), then reads the user's wrapped
-- key, the thread's owner and the page. Seven round trips before (the session check, BEGIN, the tenant scope,
-- the key, the thread, the page, COMMIT), one now. Rows, in order:
--   'gate'     hearth_session_admit's row in the limit columns, limit_name NULL when the session is not live; a
--              session that is not live or a request over its limit reads nothing more;
--   'key'      seq = the master key version, sealed = the wrapped data key (none: the account is gone);
--   'thread'   when the user owns the thread (none: no such thread);
--   'message'  up to p_limit + 1 messages from the cursor (p_position, a seq; NULL for the first page), newest or
--              oldest first; one more than the page tells the caller there is a next page.
-- MessageStore reads them (decision 0016 says why the function reads tables other stores own).
CREATE FUNCTION hearth_message_page(p_tenant uuid, p_user uuid, p_thread uuid, p_session uuid, p_newest boolean,
                                    p_position bigint, p_limit bigint)
    RETURNS TABLE (kind text, id uuid, seq bigint, role text, status text, reply_to uuid, provider text, model text,
                   created_at timestamptz, crisis_kind text, sealed bytea,
                   limit_name text, quota bigint, used bigint, window_seconds integer, reset_seconds integer)
    LANGUAGE plpgsql
    AS $$
#variable_conflict use_column
DECLARE
    gate record;
BEGIN
    SELECT * INTO gate FROM hearth_session_admit(p_tenant, p_session, p_user);
    RETURN QUERY SELECT 'gate', NULL::uuid, NULL::bigint, NULL, NULL, NULL::uuid, NULL, NULL, NULL::timestamptz, NULL,
                        NULL::bytea, CASE WHEN gate.active THEN gate.name END, gate.quota, gate.used, gate.window_seconds,
                        gate.reset_seconds;
    IF NOT coalesce(gate.active AND gate.used <= gate.quota, false) THEN
        RETURN;
    END IF;
    PERFORM set_config('app.tenant_id', p_tenant::text, true);
    RETURN QUERY SELECT 'key', NULL::uuid, k.master_version::bigint, NULL, NULL, NULL::uuid, NULL, NULL, NULL::timestamptz,
                        NULL, k.wrapped_key, NULL, NULL::bigint, NULL::bigint, NULL::integer, NULL::integer
        FROM user_keys k WHERE k.user_id = p_user;
    IF NOT FOUND OR NOT EXISTS (SELECT 1 FROM threads t WHERE t.id = p_thread AND t.user_id = p_user) THEN
        RETURN;
    END IF;
    RETURN QUERY SELECT 'thread', NULL::uuid, NULL::bigint, NULL, NULL, NULL::uuid, NULL, NULL, NULL::timestamptz, NULL,
                        NULL::bytea, NULL, NULL::bigint, NULL::bigint, NULL::integer, NULL::integer;
    IF p_newest THEN
        RETURN QUERY SELECT 'message', m.id, m.seq, m.role, m.status, m.reply_to, m.provider, m.model, m.created_at,
                            m.crisis_kind, m.content_ciphertext, NULL, NULL::bigint, NULL::bigint, NULL::integer, NULL::integer
            FROM messages m WHERE m.thread_id = p_thread AND (p_position IS NULL OR m.seq < p_position)
            ORDER BY m.seq DESC LIMIT p_limit + 1;
    ELSE
        RETURN QUERY SELECT 'message', m.id, m.seq, m.role, m.status, m.reply_to, m.provider, m.model, m.created_at,
                            m.crisis_kind, m.content_ciphertext, NULL, NULL::bigint, NULL::bigint, NULL::integer, NULL::integer
            FROM messages m WHERE m.thread_id = p_thread AND (p_position IS NULL OR m.seq > p_position)
            ORDER BY m.seq ASC LIMIT p_limit + 1;
    END IF;
END
$$;
REVOKE ALL ON FUNCTION hearth_message_page(uuid, uuid, uuid, uuid, boolean, bigint, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hearth_message_page(uuid, uuid, uuid, uuid, boolean, bigint, bigint) TO hearth_app;
