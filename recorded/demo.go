package recorded

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/results"
)

// WriteDemo writes what came of the demo's finished experiment spec, whose
// data directory is dir: its stream conditions' stage table, then its
// report (into dir/report) and the report's summary, and where everything
// is with the commands that inspect it.
func WriteDemo(ctx context.Context, out io.Writer, store results.Store, set bench.Set, spec contract.ExperimentSpec, dir string) error {
	recs, err := store.Records(ctx, "")
	if err != nil {
		return err
	}
	streams, labels := StreamRecords(spec, recs)
	fmt.Fprintln(out)
	if err := analysis.WriteStageTable(out, analysis.StageMeans(streams), labels); err != nil {
		return err
	}
	reportDir := filepath.Join(dir, "report")
	rep, err := ExperimentReport(ctx, store, set, spec.Name, reportDir)
	if err != nil {
		return err
	}
	fmt.Fprintln(out)
	analysis.WriteSummary(out, rep)
	fmt.Fprintf(out, "\nreport:  %s\n", filepath.Join(reportDir, "index.html"))
	fmt.Fprintf(out, "results: %s (results.db, memory.db, temporal.db; the server's log: temporal.log)\n", dir)
	fmt.Fprintf(out, "inspect: clinevo --data-dir %s runs list | runs stages | memory stats\n", dir)
	if len(streams) > 0 { // a spec without a stream condition has no episode to point at
		fmt.Fprintf(out, "         clinevo --data-dir %s episode show %s\n", dir, contract.EpisodeWorkflowID(spec.RunID("E1"), 1, 1, 1, streams[0].CaseID))
	}
	return nil
}
