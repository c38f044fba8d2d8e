// Package durability holds the end-to-end tests that take away what a run
// depends on and check that it finishes as if nothing had happened:
//
//   - clinevo subprocesses killed with SIGKILL: a worker and the whole process
//     in the middle of a stream, its evaluations and its replay
//     (TestCrashRecovery), a worker in the middle of an episode's question
//     (TestPatientDetailsSurviveSIGKILL) or a synthetic test result
//     (TestGatekeeperResultSurvivesSIGKILL), workers under every learning
//     method (TestMethodsSurviveSIGKILL), a worker while MaTTS's attempts of
//     a case are played (TestMaTTSSurvivesSIGKILL) and three worker processes
//     sharing one run (TestManyWorkersOneRun);
//   - outages longer than a minute of the results database, a model endpoint
//     and the Qdrant bank (TestOutagesAreWaitedOut);
//   - clinevo upgraded in the middle of a stream (TestUpgradeMidStage) and of
//     an experiment (TestUpgradeMidExperiment): the build of an earlier
//     commit (CLINEVO_UPGRADE_FROM; unset, they skip) starts the run and is
//     stopped, this tree's build finishes it;
//   - a run longer than one history could hold: a held-out evaluation of 600
//     episodes, three runs of the evaluation
//     (TestHeldOutEvaluationContinuesAsNew; 2,500 in
//     BenchmarkHeldOutEvaluation2500).
//
// Most of their time is spent waiting (for Temporal's timeouts after a kill,
// for the outage to end), so they run in parallel with each other, in a
// package of their own beside the engine package's in-process tests. The
// held-out evaluation, which keeps a processor busy, fills that wait.
package durability
