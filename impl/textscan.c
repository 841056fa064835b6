/* impl.textscan in the C build: the two functions of impl/textscan.py, the
   reference, each made in one pass over the string's own storage.

   Why C: a str is stored one, two or four bytes a character (PEP 393).
   Python's UTF-8 encoder writes a copy of a text only for the planner to
   measure it, and `str.replace` passes over a text once per pattern. The
   corpus's texts are four bytes a character (its filler holds an emoji),
   and there those passes took a quarter of the planner's time (perf: the
   size 19 %, the flattening 7 %). The loops below are branch-free sums
   and writes the compiler makes into vector instructions.
   tests/impl/test_textscan.py holds them equal to the reference and to
   Python's own encoder. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

/* Runs SCAN, one of the macros below, on the string's storage: one, two
   or four bytes a character. */
#define BY_WIDTH(kind, SCAN)          \
    do {                              \
        switch (kind) {               \
        case PyUnicode_1BYTE_KIND:    \
            SCAN(Py_UCS1);            \
            break;                    \
        case PyUnicode_2BYTE_KIND:    \
            SCAN(Py_UCS2);            \
            break;                    \
        default:                      \
            SCAN(Py_UCS4);            \
            break;                    \
        }                             \
    } while (0)

/* Characters summed in 32 bits before the sum joins the total. */
#define BLOCK 65536

/* The UTF-8 bytes of each character past its first, into `extra`; any
   character in U+D800..U+DFFF (a surrogate) sets `surrogates`. */
#define EXTRA_BYTES(TYPE)                                                     \
    do {                                                                      \
        const TYPE *at = (const TYPE *)data;                                  \
        for (Py_ssize_t start = 0; start < length; start += BLOCK) {          \
            Py_ssize_t stop = length - start < BLOCK ? length : start + BLOCK; \
            uint32_t block_extra = 0, block_surrogates = 0;                   \
            for (Py_ssize_t i = start; i < stop; i++) {                       \
                uint32_t c = at[i];                                           \
                block_extra += (c >= 0x80) + (c >= 0x800) + (c >= 0x10000);   \
                block_surrogates |= (c & 0xFFFFF800u) == 0xD800u;             \
            }                                                                 \
            extra += block_extra;                                             \
            surrogates |= block_surrogates;                                   \
        }                                                                     \
    } while (0)

static PyObject *
utf8_size(PyObject *module, PyObject *text)
{
    (void)module;
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "utf8_size() takes a str");
        return NULL;
    }
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    if (PyUnicode_IS_ASCII(text)) {
        return PyLong_FromSsize_t(length);
    }
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t extra = 0;
    uint32_t surrogates = 0;
    BY_WIDTH(PyUnicode_KIND(text), EXTRA_BYTES);
    return PyLong_FromSsize_t(surrogates ? -1 : length + extra);
}

/* How many characters are `\r` or `\n` (into `breaks`), and how many are
   the `\n` of a `\r\n` (into `pairs`): the flat text is `pairs` shorter. */
#define COUNT_BREAKS(TYPE)                                                    \
    do {                                                                      \
        const TYPE *at = (const TYPE *)data;                                  \
        for (Py_ssize_t i = 0; i < length; i++) {                             \
            breaks += (at[i] == '\r') | (at[i] == '\n');                      \
        }                                                                     \
        for (Py_ssize_t i = 1; i < length; i++) {                             \
            pairs += (at[i] == '\n') & (at[i - 1] == '\r');                   \
        }                                                                     \
    } while (0)

/* Copy the text with each `\r` and `\n` written as a space, where the `\n`
   of a `\r\n` is written over by the character after it. */
#define FLATTEN(TYPE)                                                         \
    do {                                                                      \
        const TYPE *from = (const TYPE *)data;                                \
        TYPE *to = (TYPE *)PyUnicode_DATA(flat);                              \
        TYPE before = 0;                                                      \
        Py_ssize_t j = 0;                                                     \
        for (Py_ssize_t i = 0; i < length; i++) {                             \
            TYPE c = from[i];                                                 \
            to[j] = (c == '\r') | (c == '\n') ? ' ' : c;                      \
            j += !((c == '\n') & (before == '\r'));                           \
            before = c;                                                       \
        }                                                                     \
    } while (0)

static PyObject *
flatten(PyObject *module, PyObject *text)
{
    (void)module;
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "flatten() takes a str");
        return NULL;
    }
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t breaks = 0, pairs = 0;
    BY_WIDTH(kind, COUNT_BREAKS);
    if (breaks == 0) {
        return Py_NewRef(text);
    }
    /* Only line breaks change, and they are ASCII, so the copy has the
       text's widest character: the same width, as Python's str requires. */
    PyObject *flat = PyUnicode_New(length - pairs, PyUnicode_MAX_CHAR_VALUE(text));
    if (flat == NULL) {
        return NULL;
    }
    BY_WIDTH(kind, FLATTEN);
    return flat;
}

static PyMethodDef methods[] = {
    {"utf8_size", utf8_size, METH_O,
     "The byte length of `text` in UTF-8, or -1 when it has none (a lone surrogate)."},
    {"flatten", flatten, METH_O,
     "`text` with every `\\r\\n`, `\\r` and `\\n` turned into one space (SPEC 3)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef textscan = {
    PyModuleDef_HEAD_INIT,
    .m_name = "impl.textscan",
    .m_doc = "The text scans of impl/textscan.py, in C (impl/textscan.c).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC
PyInit_textscan(void)
{
    return PyModule_Create(&textscan);
}
