#!/bin/bash

...

module load rocm/5.7.1
module load hwloc/2.9.1-gpu # a ROCm-enabled hwloc
module load flux # Flux version 0.60.0

...

# Flux flags:
#   -N 1 -- 1 node
#   -n 8 -- 8 tasks
#   -c 7 -- 7 cores per task
#   --gpus-per-task=1 -- 1 GPU per task (doesn't work)
srun -N $SLURM_NNODES -n $SLURM_NNODES -c 56 --gpus-per-node=8 flux start \
    "flux resource list;
     echo Starting launch at \$(date);
     for i in \$(seq 1 $SLURM_NNODES); do
        flux submit -N 1 -n 8 -c 7 -x --gpus-per-task=1 --output=output.\$i.txt bash -c 'hostname; env | grep VISIBLE; /usr/bin/time ./vadd';
     done;
     echo Finished launching at \$(date);
     sleep 10;
     flux jobs -a;
     flux queue drain;"
