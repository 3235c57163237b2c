-- A message's person is its thread's (issue 3): the foreign key from messages to users goes.
--
-- A send inserts two messages (its question and the answer's row), and each insert checked this key: a read of the
-- person's row that also locks it (FOR KEY SHARE, which is written to the row). It protected nothing the key to
-- threads does not. Messages are written only by the turn's functions, with the user of the thread they checked
-- (`t.user_id = p_user`), and deleting a user deletes their threads (threads → users, ON DELETE CASCADE), which
-- delete their messages. `pgbench`: the two inserts 0.05–0.06 ms shorter without it (docs/performance-notes.md).
ALTER TABLE messages DROP CONSTRAINT messages_tenant_id_user_id_fkey;
