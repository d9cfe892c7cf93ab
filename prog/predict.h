/* predict.c's functions (one header per .c file). */
#ifndef HARDINIT_PREDICT_H
#define HARDINIT_PREDICT_H

/* hardinit predict (prog/predict.c): the PCR a boot will produce. */
int hi_predict_main(int argc, char **argv);

#endif
