// Package codec holds what the results backends share about their rows: the
// JSON bodies of records and traces, the gap check of a turn log and the
// schema version check, so that SQLite and PostgreSQL store and return the
// same bytes and refuse the same stores.
package codec

import (
	"encoding/json"
	"fmt"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/fault"
	"github.com/clinevo/clinevo/results"
)

// AppendEvent decodes the stored event of a turn and appends it to events, the
// turns before it in order; a turn missing before it is an error.
func AppendEvent(events []clinic.Event, episodeID string, turn int, body string) ([]clinic.Event, error) {
	if turn != len(events) {
		return nil, fmt.Errorf("results: events %s: turn %d is missing", episodeID, len(events))
	}
	var ev clinic.Event
	if err := json.Unmarshal([]byte(body), &ev); err != nil {
		return nil, fmt.Errorf("results: events %s turn %d: %w", episodeID, turn, err)
	}
	return append(events, ev), nil
}

// EncodeRecord returns the JSON bodies of a record and its trace.
func EncodeRecord(r results.Record, t clinic.Trace) (record, trace string, err error) {
	rb, err := json.Marshal(r)
	if err != nil {
		return "", "", fmt.Errorf("results: put record %s: %w", r.EpisodeID, err)
	}
	tb, err := json.Marshal(t)
	if err != nil {
		return "", "", fmt.Errorf("results: put record %s: trace: %w", r.EpisodeID, err)
	}
	return string(rb), string(tb), nil
}

// DecodeRecord decodes the stored bodies of an episode's record and trace.
func DecodeRecord(episodeID, record, trace string) (results.Record, clinic.Trace, error) {
	var r results.Record
	var t clinic.Trace
	if err := json.Unmarshal([]byte(record), &r); err != nil {
		return results.Record{}, clinic.Trace{}, fmt.Errorf("results: episode %s: record: %w", episodeID, err)
	}
	if err := json.Unmarshal([]byte(trace), &t); err != nil {
		return results.Record{}, clinic.Trace{}, fmt.Errorf("results: episode %s: trace: %w", episodeID, err)
	}
	return r, t, nil
}

// SchemaVersion checks a store's schema version against the latest this
// build knows, for a store of dependency: a newer one needs a newer clinevo;
// for a reader (which does not migrate) an older one needs migrating first,
// which migrate says how to do.
func SchemaVersion(dependency string, current, latest int, reader bool, migrate string) error {
	switch {
	case current > latest:
		return fault.Permanent(dependency, fault.Schema, "open it with a newer clinevo",
			fmt.Errorf("migrate: schema version %d is newer than this clinevo knows (%d)", current, latest))
	case reader && current < latest:
		return fault.Permanent(dependency, fault.Schema, migrate+"; readers open it read-only",
			fmt.Errorf("schema version %d is older than this clinevo reads (%d)", current, latest))
	}
	return nil
}
