-- The key the chain's newest records are hashed under, by fingerprint ('none': plain SHA-256). Read
-- under the head lock, so the record that starts a new key and the head that says so commit together.
alter table audit_head add column key_fingerprint varchar(16) default 'none' not null;
