// Package sqlitefault classifies the errors of SQLite files (modernc.org/sqlite)
// into fault classes, for the two stores that keep one: results/sqlite and
// memory/local. WAL puts such a file in write-ahead-log mode, waiting out the
// one lock that SQLite's busy timeout does not cover.
package sqlitefault

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/clinevo/clinevo/fault"
)

// Class classifies err: a locked or busy file, an I/O error and a full disk
// are unavailable (another process holds the lock, the disk comes back or is
// freed); a read-only or unopenable file is invalid (its permissions or path
// must change); a corrupt file, a file that is no database, a missing table or
// column and stored JSON that does not decode are a schema fault; the
// standard library's network and deadline errors are classified as
// fault.Network does; anything else is unknown.
func Class(err error) fault.Class {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff { // the primary code of an extended one
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL, sqlite3.SQLITE_PROTOCOL:
			return fault.Unavailable
		case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM, sqlite3.SQLITE_CANTOPEN:
			return fault.Invalid
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_SCHEMA:
			return fault.Schema
		case sqlite3.SQLITE_ERROR:
			if m := se.Error(); strings.Contains(m, "no such table") || strings.Contains(m, "no such column") {
				return fault.Schema
			}
		}
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) {
		return fault.Schema
	}
	if c, ok := fault.Network(err); ok {
		return c
	}
	return fault.Unknown
}

// Fix says what to do about a permanent fault of the file at path.
func Fix(c fault.Class, path string) string {
	switch c {
	case fault.Invalid:
		return "check that " + path + " and its directory exist and can be written by this process"
	case fault.Schema:
		return path + " does not hold what this clinevo expects: restore it from a backup, or open it with the clinevo that wrote it"
	}
	return ""
}

// Tag classifies err as a failure of dependency, the file at path; nil
// stays nil, and an error classified already keeps its class.
func Tag(dependency, path string, err error) error {
	var f *fault.Error
	if err == nil || errors.As(err, &f) {
		return err
	}
	c := Class(err)
	if !c.Transient() {
		return fault.Permanent(dependency, c, Fix(c, path), err)
	}
	return fault.New(dependency, c, err)
}

// header starts every SQLite database file.
const header = "SQLite format 3\x00"

// CheckFile refuses a file at path that exists, holds something, and is no
// SQLite database (a file copied over it, a text saved in its place): a
// schema fault that says so and where, before SQLite's own words ("file is
// not a database", or a schema version of 0 that asks for a migration that
// cannot help). A missing or empty file is left to SQLite, which creates it.
func CheckFile(dependency, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return nil // missing, or unreadable: opening it says which
	}
	defer f.Close()
	b := make([]byte, len(header))
	n, _ := io.ReadFull(f, b) // a short file is judged by what it holds
	if n == 0 || string(b[:n]) == header {
		return nil
	}
	return fault.Permanent(dependency, fault.Schema,
		"restore it from a backup, or point the data directory (--data-dir) at the one the worker writes",
		fmt.Errorf("%s is not a SQLite database (it starts with %.24q)", path, b[:n]))
}
