/* GIL probe for benchmarks/gil_probe.py: a native thread (never holding the GIL) that
 * samples CPython 3.11+'s GIL "locked" flag every N microseconds, as `py-spy --gil` does
 * from outside the process.  Built on demand by gil_probe.py with the host C compiler. */
#define PY_SSIZE_T_CLEAN
#define Py_BUILD_CORE 1
#include <Python.h>
#include "internal/pycore_runtime.h"
#include <pthread.h>
#include <time.h>
#include <stdatomic.h>

static pthread_t th;
static volatile int running = 0;
static long long held = 0, total = 0;
static long interval_ns = 50000;

static void *loop(void *arg) {
    struct timespec ts = {0, 0};
    while (running) {
        ts.tv_nsec = interval_ns;
        nanosleep(&ts, NULL);
        int locked = _Py_atomic_load_relaxed(&_PyRuntime.ceval.gil.locked);
        total++;
        if (locked) held++;
    }
    return NULL;
}

static PyObject *start(PyObject *self, PyObject *args) {
    long us = 50;
    if (!PyArg_ParseTuple(args, "|l", &us)) return NULL;
    if (running) { PyErr_SetString(PyExc_RuntimeError, "already running"); return NULL; }
    interval_ns = us * 1000; held = 0; total = 0; running = 1;
    if (pthread_create(&th, NULL, loop, NULL) != 0) { running = 0; PyErr_SetString(PyExc_OSError, "pthread_create"); return NULL; }
    Py_RETURN_NONE;
}

static PyObject *stop(PyObject *self, PyObject *noargs) {
    if (!running) { PyErr_SetString(PyExc_RuntimeError, "not running"); return NULL; }
    running = 0;
    Py_BEGIN_ALLOW_THREADS
    pthread_join(th, NULL);
    Py_END_ALLOW_THREADS
    return Py_BuildValue("LL", held, total);
}

static PyMethodDef methods[] = {
    {"start", start, METH_VARARGS, "start sampling the GIL's locked flag every N microseconds"},
    {"stop", stop, METH_NOARGS, "stop; (samples with the GIL held, samples)"},
    {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "gilprobe", NULL, -1, methods};
PyMODINIT_FUNC PyInit_gilprobe(void) { return PyModule_Create(&mod); }
