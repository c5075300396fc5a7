for i in `seq 0 3`
do
        mkdir $i
        cd $i
        python3 $execname $i &> slurmout.run.$SLURM_JOB_ID &
        cd -
done
