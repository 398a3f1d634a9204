// Rank and local rank from the launcher that started this process, as nccl-tests and torchrun users
// read them: one bench_ops process per GPU, each running shard RANK of WORLD_SIZE on GPU LOCAL_RANK.
// These variables are the launchers' interface, not tuning switches:
//
//   torchrun         RANK, WORLD_SIZE, LOCAL_RANK (and LOCAL_WORLD_SIZE)
//   Open MPI mpirun  OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_RANK
//   Slurm srun       SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, in a job step (SLURM_STEP_NUM_TASKS set)
//
// The first that is present wins, in that order: torchrun started by srun sees both and its own RANK is
// the process's; mpirun inside an sbatch allocation inherits the batch script's SLURM_* variables. The
// batch script itself (no srun step) sets SLURM_PROCID=0 and SLURM_NTASKS too, so Slurm counts only
// inside a step: bench_ops run directly in a batch script runs the whole selection.
#pragma once
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

namespace opbench::dist {

struct LaunchRank {
  std::string launcher;  // torchrun, openmpi, slurm
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::string variables;  // "RANK=1 WORLD_SIZE=4 LOCAL_RANK=1", for messages
};

// Malformed or inconsistent launcher variables (RANK=abc, RANK >= WORLD_SIZE, a missing partner).
class LauncherEnvError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Looks a variable up; nullptr when unset. Defaults to the process environment.
using EnvLookup = std::function<const char*(const char*)>;
EnvLookup process_env();

// The launcher's rank, or nullopt when none started this process. Throws LauncherEnvError.
std::optional<LaunchRank> detect_launcher(const EnvLookup& env);

// The GPU a process of local rank `local_rank` uses among `visible` devices: its local rank; device 0
// when the launcher made one GPU visible per process (srun --gpus-per-task=1, a CUDA_VISIBLE_DEVICES
// wrapper). Throws LauncherEnvError when the local rank has no GPU of its own.
int device_for_local_rank(int local_rank, int visible);

}  // namespace opbench::dist
