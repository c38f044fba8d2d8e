package atif

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/inspectlog"
)

// FileName is where a trajectory of run goes under the export's directory:
// a folder a run, a file an episode, named by the episode's place in the
// run ("p1_s01_e0001-case.json" for episode run/p1/s01/e0001-case).
func FileName(run string, t Trajectory) string {
	return filepath.Join(clean(run), clean(strings.TrimPrefix(t.SessionID, run+"/"))+".json")
}

// clean makes a run or episode ID one path element.
var clean = strings.NewReplacer("/", "_", "\\", "_", ":", "-").Replace

// Write writes a trajectory as JSON to dir/FileName, through a temporary
// file renamed into place, and returns the path.
func Write(dir, run string, t Trajectory) (string, error) {
	path := filepath.Join(dir, FileName(run, t))
	err := corpus.WriteAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(t)
	})
	if err != nil {
		return "", fmt.Errorf("atif export: %w", err)
	}
	return path, nil
}

// Export writes the trajectories of recorded run runID (an experiment: of
// each condition with episodes) into dir, a folder a run, and says on w
// where and how many. The run is read as inspectlog.Inputs reads it.
func Export(ctx context.Context, src inspectlog.Source, benches bench.Set, runID, dir string, w io.Writer) error {
	ins, err := inspectlog.Inputs(ctx, src, benches, runID)
	if err != nil {
		return fmt.Errorf("atif %w", err)
	}
	for _, in := range ins {
		ts := Build(in)
		for _, t := range ts {
			if _, err := Write(dir, in.Run.Run, t); err != nil {
				return err
			}
		}
		fmt.Fprintf(w, "wrote %s: %d trajectories\n", filepath.Join(dir, clean(in.Run.Run)), len(ts))
	}
	return nil
}
