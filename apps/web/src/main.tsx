import './config/zod-without-eval';
import './app/global.css';

import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter } from 'react-router';

import { AppProvider } from './app/provider';
import { routes } from './app/router';

const rootElement = document.getElementById('root');
if (!rootElement) throw new Error('index.html has no #root element');

createRoot(rootElement).render(
  <StrictMode>
    <AppProvider router={createBrowserRouter(routes)} />
  </StrictMode>,
);
