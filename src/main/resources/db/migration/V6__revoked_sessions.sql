-- Sessions ended by signing out, until they would have expired anyway. Session cookies are signed and
-- carry no server state; without this, a cookie copied before logout would stay good until its expiry.
-- Kept in the database so every replica refuses it.
create table revoked_sessions (
    session_id varchar(32) primary key,
    expires_at timestamp not null
);
create index revoked_sessions_expiry on revoked_sessions (expires_at);
