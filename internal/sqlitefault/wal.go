package sqlitefault

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// WALTimeout is how long WAL waits for the file's lock: busy_timeout's 10 s,
// the value every clinevo store gives its SQLite files (our choice).
const WALTimeout = 10 * time.Second

// WAL puts the file that db opens in write-ahead-log mode, which persists in
// the file, so every later connection to it uses the mode too.
//
// It is not a "_pragma=journal_mode(WAL)" of the connection URI for one
// reason: SQLite changes a journal mode under an exclusive lock, and when two
// connections that each hold the shared lock both want it (two processes
// opening a new file at once), one of them can get SQLITE_BUSY at once, without
// calling the busy handler, however long busy_timeout is. In the URI that
// failed the connection; here a busy file is tried again, with waits growing
// from 1 ms to 50 ms, until WALTimeout has passed or ctx ends.
func WAL(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(WALTimeout)
	wait := time.Millisecond
	for {
		var mode string
		err := db.QueryRowContext(ctx, `PRAGMA journal_mode=WAL`).Scan(&mode)
		if err == nil {
			return nil
		}
		if !busy(err) || time.Now().After(deadline) {
			return fmt.Errorf("journal mode: %w", err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("journal mode: %w", errors.Join(ctx.Err(), err))
		case <-t.C:
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// busy reports whether err is SQLite's SQLITE_BUSY (any extended code of it).
func busy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}
