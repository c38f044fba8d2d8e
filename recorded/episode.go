package recorded

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/runner"
)

// positionOnly is an episode ID without its case suffix: the run, then
// /p<pass>/s<stage>/e<index>.
var positionOnly = regexp.MustCompile(`^(.+)/p\d+/s\d+/e\d+$`)

// ResolveEpisode is the recorded episode ID that id names: id itself, or id
// without its case suffix, the one episode at that position of its run.
func ResolveEpisode(ctx context.Context, store results.Episodes, id string) (string, error) {
	m := positionOnly.FindStringSubmatch(id)
	if m == nil {
		return id, nil
	}
	recs, err := store.Records(ctx, m[1])
	if err != nil {
		return "", err
	}
	for _, r := range recs {
		if strings.HasPrefix(r.EpisodeID, id+"-") {
			return r.EpisodeID, nil
		}
	}
	return id, nil // not recorded: RecordTrace says so
}

// Episode is a recorded episode as `episode show` shows it; its JSON is
// {"record", "trace"}, as Export writes an episode.
type Episode struct {
	Record results.Record `json:"record"`
	Trace  clinic.Trace   `json:"trace"`
}

// EpisodeOf reads the episode id names (ResolveEpisode): its record and
// trace.
func EpisodeOf(ctx context.Context, store results.Episodes, id string) (Episode, error) {
	id, err := ResolveEpisode(ctx, store, id)
	if err != nil {
		return Episode{}, err
	}
	rec, t, err := store.RecordTrace(ctx, id)
	return Episode{rec, t}, err
}

// WriteEpisode prints `episode show`: the trace as the benchmark b reads its
// events (nil: the shared reading), the labels, the memory and rule changes,
// and where its history is.
func WriteEpisode(w io.Writer, rec results.Record, t clinic.Trace, b bench.Benchmark) {
	fmt.Fprint(w, runner.Format(t, b))
	fmt.Fprintf(w, "labels: %s\n", strings.Join(rec.Labels, " "))
	fmt.Fprintf(w, "cards: %d retrieved, %d written, %d evicted; rule edits: %s\n", len(rec.Retrieved), len(rec.Written), len(rec.Evicted), strings.Join(rec.RuleEdits, "; "))
	for _, c := range []struct {
		what string
		ids  []string
	}{{"retrieved", rec.Retrieved}, {"written", rec.Written}, {"evicted", rec.Evicted}} {
		if len(c.ids) > 0 { // `memory show ID` shows a card whole
			fmt.Fprintf(w, "  %s: %s\n", c.what, strings.Join(c.ids, ", "))
		}
	}
	fmt.Fprintf(w, "history: temporal workflow show --workflow-id %q\n", rec.WorkflowID)
}

// ExportFormat is the format of an export asked for as format, or as JSON
// (asJSON, which wins): "jsonl" or "json"; any other is an error naming the
// flag.
func ExportFormat(format string, asJSON bool) (string, error) {
	if asJSON {
		format = "json"
	}
	if format != "jsonl" && format != "json" {
		return format, fmt.Errorf("runs export: --format %q, want jsonl or json", format)
	}
	return format, nil
}

// Export writes the records of run ("": every run) with their traces to w:
// as JSONL, one {"record", "trace"} a line (format "jsonl"), or as one
// indented JSON array (format "json").
func Export(ctx context.Context, store results.Episodes, run, format string, w io.Writer) error {
	recs, err := store.Records(ctx, run)
	if err != nil {
		return err
	}
	return export(ctx, store, recs, format, w)
}

// ExportFile is Export into the file at path, written beside it under a
// temporary name and renamed over it once complete: a failed or interrupted
// export leaves whatever was at path as it was, and no half file.
func ExportFile(ctx context.Context, store results.Episodes, run, format, path string) error {
	recs, err := store.Records(ctx, run)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.partial")
	if err != nil {
		return err
	}
	err = export(ctx, store, recs, format, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// CreateTemp makes the file 0600; an export is as readable as any file written.
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

func export(ctx context.Context, store results.Episodes, recs []results.Record, format string, w io.Writer) error {
	enc := json.NewEncoder(w)
	var all []map[string]any
	for _, r := range recs {
		_, t, err := store.RecordTrace(ctx, r.EpisodeID)
		if err != nil {
			return err
		}
		item := map[string]any{"record": r, "trace": t}
		if format == "json" {
			all = append(all, item)
			continue
		}
		if err := enc.Encode(item); err != nil {
			return err
		}
	}
	if format != "json" {
		return nil
	}
	if all == nil {
		all = []map[string]any{}
	}
	enc.SetIndent("", "  ")
	return enc.Encode(all)
}
