package inspectlog

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// The entries of an .eval log, as the pinned inspect_ai names them
// (src/inspect_ai/log/_recorders/eval.py): the log's start (version, eval
// spec and plan) in the journal, one entry a sample, the samples' summaries
// (journalled, then consolidated), and the header: the EvalLog without its
// samples.
const (
	startEntry        = "_journal/start.json"
	journalSummaries  = "_journal/summaries/1.json"
	summariesEntry    = "summaries.json"
	headerEntry       = "header.json"
	samplesDir        = "samples/"
	removedFromSample = "Key removed from summary (> 1k)"
)

// SampleEntry is the name of a sample's entry in an .eval log.
func SampleEntry(id string, epoch int) string {
	return fmt.Sprintf("%s%s_epoch_%d.json", samplesDir, id, epoch)
}

// logStart is inspect's LogStart: what the journal holds from the start.
type logStart struct {
	Version int  `json:"version"`
	Eval    Spec `json:"eval"`
	Plan    Plan `json:"plan"`
}

// SampleSummary is inspect's EvalSampleSummary: what the viewer's sample
// list shows without reading the sample, its long texts thinned as inspect
// thins them.
type SampleSummary struct {
	ID           string           `json:"id"`
	Epoch        int              `json:"epoch"`
	Input        string           `json:"input"`
	Target       []string         `json:"target"`
	Metadata     map[string]any   `json:"metadata"`
	Scores       map[string]Score `json:"scores"`
	ModelUsage   map[string]Usage `json:"model_usage"`
	RoleUsage    map[string]Usage `json:"role_usage"`
	TotalTime    *float64         `json:"total_time,omitempty"`
	WorkingTime  *float64         `json:"working_time,omitempty"`
	UUID         string           `json:"uuid"`
	Completed    bool             `json:"completed"`
	MessageCount int              `json:"message_count"`
	TurnCount    int              `json:"turn_count"`
}

// writeEval writes l as inspect's .eval log: a zip of JSON entries in the
// order inspect writes a finished log. The entries are deflated: the pinned
// inspect writes zstd (method 93), which Go's archive/zip lacks, and reads
// deflate (method 8, what its earlier releases wrote) as well.
func writeEval(w io.Writer, l Log) error {
	z := zip.NewWriter(w)
	put := func(name string, v any) error {
		f, err := z.Create(name)
		if err != nil {
			return fmt.Errorf("entry %s: %w", name, err)
		}
		if err := json.NewEncoder(f).Encode(v); err != nil {
			return fmt.Errorf("entry %s: %w", name, err)
		}
		return nil
	}
	if err := put(startEntry, logStart{Version: l.Version, Eval: l.Eval, Plan: l.Plan}); err != nil {
		return err
	}
	summaries := make([]SampleSummary, 0, len(l.Samples))
	for _, s := range l.Samples {
		if err := put(SampleEntry(s.ID, s.Epoch), s); err != nil {
			return err
		}
		summaries = append(summaries, summaryOf(s))
	}
	if err := put(journalSummaries, summaries); err != nil {
		return err
	}
	if err := put(summariesEntry, summaries); err != nil {
		return err
	}
	header := l
	header.Samples = nil
	if err := put(headerEntry, header); err != nil {
		return err
	}
	return z.Close()
}

// ReadEval reads an .eval log back as inspect does: the header, and the
// samples ordered by epoch, then ID (inspect's sort_samples).
func ReadEval(path string) (Log, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return Log{}, fmt.Errorf("read %s: %w", path, err)
	}
	defer z.Close()
	var l Log
	found := false
	for _, f := range z.File {
		switch {
		case f.Name == headerEntry:
			found = true
			err = readEntry(f, &l)
		case strings.HasPrefix(f.Name, samplesDir) && strings.HasSuffix(f.Name, ".json"):
			var s Sample
			err = readEntry(f, &s)
			l.Samples = append(l.Samples, s)
		}
		if err != nil {
			return Log{}, fmt.Errorf("read %s: entry %s: %w", path, f.Name, err)
		}
	}
	if !found {
		return Log{}, fmt.Errorf("read %s: no %s entry: not a finished inspect log", path, headerEntry)
	}
	slices.SortStableFunc(l.Samples, func(a, b Sample) int {
		if a.Epoch != b.Epoch {
			return a.Epoch - b.Epoch
		}
		return strings.Compare(a.ID, b.ID)
	})
	return l, nil
}

func readEntry(f *zip.File, v any) error {
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	return json.NewDecoder(r).Decode(v)
}

// summaryOf is a sample's summary, thinned as inspect's
// EvalSampleSummary.thin_data thins it (src/inspect_ai/log/_util.py).
func summaryOf(s Sample) SampleSummary {
	out := SampleSummary{ID: s.ID, Epoch: s.Epoch, Input: truncateText(s.Input), Target: make([]string, len(s.Target)),
		Metadata: thinMetadata(s.Metadata), Scores: map[string]Score{}, ModelUsage: s.ModelUsage, RoleUsage: s.RoleUsage,
		TotalTime: s.TotalTime, WorkingTime: s.WorkingTime, UUID: s.UUID, Completed: true, MessageCount: len(s.Messages), TurnCount: s.TurnCount}
	for i, t := range s.Target {
		out.Target[i] = truncateText(t)
	}
	for name, sc := range s.Scores {
		out.Scores[name] = Score{Value: sc.Value, Answer: thinText(sc.Answer), Explanation: thinText(sc.Explanation),
			Metadata: thinMetadata(sc.Metadata), History: []any{}}
	}
	return out
}

// The lengths inspect thins a summary to (src/inspect_ai/log/_util.py):
// MAX_TEXT_LENGTH for an input or target, THIN_TEXT_WIDTH for a score's
// text and a metadata string, and 1024 bytes of JSON for any other
// metadata value.
const (
	maxTextLength = 5120
	thinTextWidth = 1024
	thinTextScan  = thinTextWidth * 8
)

// truncateText is inspect's truncate_text.
func truncateText(s string) string {
	if utf8.RuneCountInString(s) <= maxTextLength {
		return s
	}
	return string([]rune(s)[:maxTextLength]) + "...\n(content truncated)"
}

// thinText is inspect's thin_text (Python's textwrap.shorten to 1024
// characters with the placeholder "..."): whitespace collapsed, then whole
// words kept while they and the placeholder fit.
func thinText(s string) string {
	if r := []rune(s); len(r) > thinTextScan {
		s = string(r[:thinTextScan])
	}
	words := strings.Fields(s)
	if joined := strings.Join(words, " "); utf8.RuneCountInString(joined) <= thinTextWidth {
		return joined
	}
	kept, n := []string{}, 0
	for _, w := range words {
		next := n + utf8.RuneCountInString(w)
		if len(kept) > 0 {
			next++
		}
		if next+len("...") > thinTextWidth {
			break
		}
		kept, n = append(kept, w), next
	}
	return strings.Join(kept, " ") + "..."
}

// thinMetadata is inspect's thin_metadata: numbers and booleans kept,
// strings thinned, any other value kept only when its JSON fits in 1 KiB.
func thinMetadata(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch x := v.(type) {
		case string:
			out[k] = thinText(x)
		case bool, int, int64, float64:
			out[k] = x
		default:
			if b, err := json.Marshal(x); err == nil && len(b) <= 1024 {
				out[k] = x
			} else {
				out[k] = removedFromSample
			}
		}
	}
	return out
}
