// Package klinike is KlinikeBench (the paper's §2.2 and appendix B): the
// doctor questions a simulated patient and calls the tools of the task's
// sandbox within 32 agent steps (tool calls included) and 10 patient turns,
// is told to record a diagnosis when the step budget is spent, and is scored
// by four gates, D, W, A and H, and strict pass@1. The chart mode
// (settings.Episode.Mode static) shows the whole intake at once and allows
// only record_diagnosis (§4, single- vs multi-turn).
//
// The benchmark is this folder, behind the bench seam:
//   - benchmark.go: the core (bench.Benchmark), the metrics and budgets;
//     settings.go its episode keys max_steps and max_patient_turns;
//   - task.go: the task's parts (the sandbox, the tool key, spelled calls)
//     and the TOOL_CALL action, written inline in the shared types through
//     clinic.Ext; view.go the doctor's tool view (DoctorView.Ext);
//   - env.go the encounter, sandbox/ the tool registry and handlers,
//     score.go the gates, judge.go the judges and the check at start;
//   - policy.go the built-in doctor, doctor.go and prompts/ the model doctor
//     and the must-ask judge's prompt;
//   - labels.go process labels and the write-back's part, lessons.go what the
//     evolver learns, trace.go the targets and the step reading;
//   - section.go the report section, explain.go the episode page;
//   - corpus.go the task validation and the built-in splits, synth.go the
//     synthetic tasks, specs.go the shipped experiments; fakellm scripts the
//     fake endpoint for its tests.
package klinike
